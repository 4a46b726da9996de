// The default theme, with the few styles the generated pages use.
import DefaultTheme from 'vitepress/theme';
import './softscope.css';

export default DefaultTheme;
