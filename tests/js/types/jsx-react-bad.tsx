// Must NOT compile (React's JSX): each line marked BAD is an error tsc must report.
/** @jsxImportSource react */
import 'softscope/embed/react';

export const a = <softscope-widget view="normalizer" />; // BAD: unknown view
export const b = <softscope-widget theme="purple" />; // BAD: auto, light or dark
export const c = <softscope-widget controls={true} />; // BAD: controls is a list, not a boolean
