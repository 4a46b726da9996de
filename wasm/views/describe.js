// What the views' one-sentence descriptions (a view module's describe(data),
// for screen readers and the figure's accessible description) share.

/** The non-empty parts joined with '; '. */
export const list = (xs) => xs.filter(Boolean).join('; ');
