// Must compile under tsc --strict with React's JSX (jsxImportSource react): the tag and its attributes.
/** @jsxImportSource react */
import 'softscope/embed/react';

export const figure = <softscope-widget view="normalizers" kernels="softmax,sparsemax" temperature="0.5" controls="none" />;
export const themed = <softscope-widget view="attention" theme="dark" height={360} className="wide" id="a" onClick={() => {}} />;
export const linked = <softscope-widget state="#view=optimizers&fn=beale" height="300px" />;
