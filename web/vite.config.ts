import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = process.env.IOT_API_URL ?? 'http://localhost:18090';

export default defineConfig({
  base: '/',
  plugins: [react()],
  server: { proxy: { '/api': apiTarget, '/docs': apiTarget } },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
});
