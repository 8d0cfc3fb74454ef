// The default theme, and one rule: what only a reader of the repository's files should see.
import DefaultTheme from 'vitepress/theme';
import './site.css';

export default DefaultTheme;
