import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

import { CONTENT_SECURITY_POLICY } from '../../main/server/http/content-security-policy.js';
import {
  allowPermissionCheck,
  allowPermissionRequest,
  hardenSession,
  hardenWebContents,
  isSafeExternalUrl,
  SECURE_WEB_PREFERENCES,
  withContentSecurityPolicy,
} from '../../main/electron/security.js';
import { type FakeElectron, FakeWebContents, resetElectron } from './fake-electron.js';

const APP = 'http://127.0.0.1:8765';
let fake: FakeElectron;
beforeEach(() => {
  fake = resetElectron();
});

describe('window security settings', () => {
  it('are exactly the locked-down set (any loosening, addition or removal fails)', () => {
    expect(SECURE_WEB_PREFERENCES).toStrictEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    });
    expect(Object.isFrozen(SECURE_WEB_PREFERENCES)).toBe(true);
  });

  it('uses the shared strict CSP, with no inline or eval scripts', () => {
    const headers = withContentSecurityPolicy({
      'content-security-policy': ["default-src *; script-src 'unsafe-inline'"],
      'Content-Type': ['text/html'],
    });
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(inline|eval)/);
    expect(withContentSecurityPolicy(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });

  it('opens only http and https links in the system browser', () => {
    expect(isSafeExternalUrl('https://example.com/help')).toBe(true);
    expect(isSafeExternalUrl('http://example.com')).toBe(true);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'ms-settings:', 'vscode://x', 'not a url']) {
      expect(isSafeExternalUrl(url), url).toBe(false);
    }
  });

  it('grants the camera to the app, and nothing else to anyone', () => {
    expect(allowPermissionRequest('media', { requestingUrl: `${APP}/visits/1`, mediaTypes: ['video'] }, APP)).toBe(true);
    expect(allowPermissionRequest('media', { requestingUrl: `${APP}/`, mediaTypes: ['audio'] }, APP)).toBe(false);
    expect(allowPermissionRequest('media', { requestingUrl: `${APP}/`, mediaTypes: ['video', 'audio'] }, APP)).toBe(false);
    expect(allowPermissionRequest('media', { requestingUrl: `${APP}/`, mediaTypes: [] }, APP)).toBe(false);
    expect(allowPermissionRequest('media', { requestingUrl: `${APP}/` }, APP)).toBe(false);
    expect(allowPermissionRequest('media', { requestingUrl: 'http://127.0.0.1:9999/', mediaTypes: ['video'] }, APP)).toBe(false);
    expect(allowPermissionRequest('media', { requestingUrl: 'https://evil.example/', mediaTypes: ['video'] }, APP)).toBe(false);
    for (const p of ['geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'display-capture', 'hid', 'usb', 'serial']) {
      expect(allowPermissionRequest(p, { requestingUrl: `${APP}/`, mediaTypes: ['video'] }, APP), p).toBe(false);
    }
    expect(allowPermissionCheck('media', APP, { mediaType: 'video' }, APP)).toBe(true);
    expect(allowPermissionCheck('media', `${APP}/`, { mediaType: 'video' }, APP)).toBe(true);
    expect(allowPermissionCheck('media', APP, { mediaType: 'audio' }, APP)).toBe(false);
    expect(allowPermissionCheck('media', 'https://evil.example', { mediaType: 'video' }, APP)).toBe(false);
    expect(allowPermissionCheck('geolocation', APP, {}, APP)).toBe(false);
  });

  it('installs the CSP and the permission rules on the session', () => {
    const ses = fake.session.defaultSession;
    hardenSession(ses as never, () => APP);

    const onHeaders = ses.webRequest.onHeadersReceived.mock.calls[0][0];
    const cb = vi.fn();
    onHeaders({ url: `${APP}/`, responseHeaders: { 'Content-Security-Policy': ['default-src *'] } }, cb);
    expect(cb).toHaveBeenCalledWith({ responseHeaders: { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
    const other = vi.fn();
    onHeaders({ url: 'devtools://devtools/bundled/index.html', responseHeaders: {} }, other);
    expect(other).toHaveBeenCalledWith({});

    const onRequest = ses.setPermissionRequestHandler.mock.calls[0][0];
    const grant = vi.fn();
    onRequest({}, 'media', grant, { requestingUrl: `${APP}/`, mediaTypes: ['video'] });
    onRequest({}, 'media', grant, { requestingUrl: `${APP}/`, mediaTypes: ['audio'] });
    onRequest({}, 'geolocation', grant, { requestingUrl: `${APP}/` });
    expect(grant.mock.calls).toEqual([[true], [false], [false]]);

    const onCheck = ses.setPermissionCheckHandler.mock.calls[0][0];
    expect(onCheck(null, 'media', APP, { mediaType: 'video' })).toBe(true);
    expect(onCheck(null, 'notifications', APP, {})).toBe(false);
    expect(ses.setDevicePermissionHandler.mock.calls[0][0]({})).toBe(false);
  });
});

describe('page rules', () => {
  function navigate(contents: FakeWebContents, event: string, url: string) {
    const e = { preventDefault: vi.fn() };
    contents.emit(event, e, url);
    return e.preventDefault.mock.calls.length > 0;
  }

  it('keeps navigation on the app and sends web links to the system browser', () => {
    const contents = new FakeWebContents();
    hardenWebContents(contents as never, () => APP);
    expect(navigate(contents, 'will-navigate', `${APP}/visits`)).toBe(false);
    expect(fake.shell.openExternal).not.toHaveBeenCalled();

    expect(navigate(contents, 'will-navigate', 'https://example.com/manual')).toBe(true);
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://example.com/manual');

    // Another local port is another origin, and file: links never leave the app.
    expect(navigate(contents, 'will-navigate', 'http://127.0.0.1:9999/')).toBe(true);
    expect(navigate(contents, 'will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(fake.shell.openExternal).toHaveBeenCalledTimes(2);
    expect(fake.shell.openExternal).not.toHaveBeenCalledWith('file:///etc/passwd');

    expect(navigate(contents, 'will-redirect', 'https://example.com/')).toBe(true);
    expect(navigate(contents, 'will-redirect', `${APP}/login`)).toBe(false);
  });

  it('opens no new windows and attaches no webviews', () => {
    const contents = new FakeWebContents();
    hardenWebContents(contents as never, () => APP);
    const openHandler = contents.setWindowOpenHandler.mock.calls[0][0];
    expect(openHandler({ url: `${APP}/report` })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
    expect(openHandler({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://example.com/');
    expect(openHandler({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledTimes(1);

    expect(navigate(contents, 'will-attach-webview', '')).toBe(true);
  });
});
