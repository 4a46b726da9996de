// softscope/embed/react: softscope/embed (the same module: importing it
// defines <softscope-widget> in a browser, nothing on a server) with the
// tag in React's JSX (React 18.2.7+ and 19: React.JSX.IntrinsicElements).
// React 19 passes the element's properties (state, view) as properties,
// which take a link or an object of keys (.state) and a view id (.view).
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { SoftscopeWidget, SoftscopeWidgetProps } from './embed.js';

export type * from './embed.js';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'softscope-widget': SoftscopeWidgetProps<DetailedHTMLProps<HTMLAttributes<SoftscopeWidget>, SoftscopeWidget>>;
    }
  }
}
