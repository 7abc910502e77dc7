import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The screens' chunk (src/navigation/screenModules.ts) is loaded by a dynamic import, which the page
 * only reaches once the first script has run; a modulepreload link lets the browser fetch and compile
 * it beside the first script instead.
 */
function preloadScreensChunk(): Plugin {
  return {
    name: 'shelf-audit-preload-screens',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find((c) => c.type === 'chunk' && c.facadeModuleId?.endsWith('/navigation/screenModules.ts'));
        if (!chunk) return [];
        return [{ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${chunk.fileName}` }, injectTo: 'head' }];
      },
    },
  };
}

// Built into dist/renderer and served by the embedded server at `/` under a strict CSP: the output
// must have no inline scripts or styles, which a production Vite build already guarantees.
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react(), preloadScreensChunk()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // Inlined assets would become data: URLs; keep every asset a file served from 'self'.
    assetsInlineLimit: 0,
    sourcemap: true,
  },
});
