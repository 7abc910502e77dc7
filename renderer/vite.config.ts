import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

// Built into dist/renderer and served by the embedded server at `/` under a strict CSP: the output
// must have no inline scripts or styles, which a production Vite build already guarantees.
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // Inlined assets would become data: URLs; keep every asset a file served from 'self'.
    assetsInlineLimit: 0,
    sourcemap: true,
  },
});
