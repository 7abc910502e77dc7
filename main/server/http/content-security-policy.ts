// One Content-Security-Policy for the app's pages, whether Electron shows them or a browser opens the
// headless server's web UI: both load the UI from the embedded server's own origin, so 'self' covers
// scripts, styles and API calls. Photos not yet uploaded are shown from blob: URLs (Dexie keeps them).
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
