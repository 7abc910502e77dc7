// Logs for support: electron-log writes the main process and the page's console to two rotating files
// in the user-data folder (logs/main.log, logs/renderer.log; at 5 MB each is moved to *.old.log).
import log from 'electron-log/main';
import path from 'node:path';

export const LOG_MAX_BYTES = 5 * 1024 * 1024;

export function logFilePath(userDataDir: string, processType: string | undefined): string {
  return path.join(userDataDir, 'logs', processType === 'renderer' ? 'renderer.log' : 'main.log');
}

export function setupLogging(userDataDir: string): typeof log {
  log.transports.file.resolvePathFn = (_vars, message) =>
    logFilePath(userDataDir, message?.variables?.processType);
  log.transports.file.maxSize = LOG_MAX_BYTES;
  // The page's console reaches the log through webContents' console-message events, so the page needs
  // no logging preload and the bridge stays as small as it is.
  log.initialize({ preload: false, spyRendererConsole: true });
  // Uncaught exceptions and unhandled rejections are logged; no dialog, the app keeps running if it can.
  log.errorHandler.startCatching({ showDialog: false });
  // Crashed or killed renderers and child processes, certificate errors.
  log.eventLogger.startLogging();
  return log;
}
