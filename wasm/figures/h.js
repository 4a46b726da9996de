// JSX-free Preact: figures are written with htm's tagged templates, so the
// same components run in Node (the CLI renders them to an SVG string) and in
// the browser, with no build step.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
