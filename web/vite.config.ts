import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console's pages: built into `web/dist`, which `credit-screen console` serves (and, in AWS, the console's
 * bucket). Everything is a file of its own (no inline script or style), so the pages run under a strict CSP.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No data: URLs for assets: the policy allows the console's own files.
    assetsInlineLimit: 0,
  },
});
