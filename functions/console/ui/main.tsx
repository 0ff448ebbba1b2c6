/** @jsxImportSource hono/jsx/dom */
// Entry of the console's browser bundle (built by scripts/console/build.ts).
import { render } from 'hono/jsx/dom';
import { App } from './app';
import { interceptLinks } from './router';

const root = document.getElementById('console') as HTMLElement;
interceptLinks(root);
render(<App />, root);
