// Must compile under tsc --strict with Preact's JSX (jsxImportSource preact): the tag and its attributes.
/** @jsxImportSource preact */
import 'softscope/embed';

export const figure = <softscope-widget view="normalizers" kernels="softmax,sparsemax" temperature="0.5" controls="none" />;
export const themed = <softscope-widget view="attention" theme="dark" height={360} class="wide" id="a" onClick={() => {}} />;
export const linked = <softscope-widget state="#view=optimizers&fn=beale" height="300px" />;
