import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development the API is proxied, so the page and /api/v1 share an origin as they do when the manager
// serves the built console.
const MANAGER_URL = process.env.MANAGER_URL ?? 'http://localhost:8000';

export default defineConfig({
  plugins: [react()],
  build: {
    // The budget check reads it to find the initial chunks (scripts/check-bundle-budget.mjs).
    manifest: true,
    sourcemap: false,
  },
  server: {
    proxy: { '/api': MANAGER_URL, '/.well-known': MANAGER_URL },
  },
});
