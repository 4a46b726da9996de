// Must NOT compile (Preact's JSX): each line marked BAD is an error tsc must report.
/** @jsxImportSource preact */
import 'softscope/embed';

export const a = <softscope-widget view="normalizer" />; // BAD: unknown view
export const b = <softscope-widget theme="purple" />; // BAD: auto, light or dark
export const c = <softscope-widget controls={true} />; // BAD: controls is a list, not a boolean
