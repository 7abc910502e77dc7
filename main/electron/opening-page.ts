// The page the window shows while the server process starts (about 1 to 2 s on a slow laptop): the
// app's frame (its header and status bar, in the app's colours) and a line saying what is happening, so
// the window is there at once instead of after the server. It is a data: URL made here, with no script
// and no link: nothing on it can navigate or call IPC, and its CSP allows only its one style block.
import { createHash } from 'node:crypto';
import { PRODUCT_NAME } from '../host/data-directory.js';

const STYLE = `
:root { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', sans-serif; font-size: 15px;
  color: #1d2330; background: #f5f6f8; }
body { margin: 0; display: grid; grid-template-rows: auto 1fr auto; height: 100vh; }
header { background: #17223b; color: #fff; padding: 0.5rem 1rem; }
h1 { font-size: 1.1rem; margin: 0.4rem 0; }
main { padding: 1rem 1.25rem; }
p { color: #5b6475; }
.bar { height: 0.25rem; width: 12rem; background: #d5d9e1; overflow: hidden; border-radius: 2px; }
.bar::after { content: ''; display: block; height: 100%; width: 40%; background: #1f5fbf;
  animation: slide 1.2s ease-in-out infinite; }
@keyframes slide { from { transform: translateX(-100%); } to { transform: translateX(300%); } }
@media (prefers-reduced-motion: reduce) { .bar::after { animation: none; width: 100%; } }
footer { background: #e7eaf0; border-top: 1px solid #d5d9e1; padding: 0.3rem 1rem; font-size: 0.85rem; color: #5b6475; }
`;

/** The opening page's policy: nothing but its own style block (by hash); no script, image, frame or form. */
export const OPENING_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'`;

export const OPENING_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${OPENING_PAGE_CSP}">
<title>${PRODUCT_NAME}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${PRODUCT_NAME}</h1></header>
<main aria-busy="true"><p role="status">Opening your shelf data…</p><div class="bar"></div></main>
<footer>Starting the local server</footer>
</body>
</html>
`;

export const OPENING_PAGE_URL = `data:text/html;charset=utf-8;base64,${Buffer.from(OPENING_PAGE_HTML).toString('base64')}`;
