// This installation: app and model versions, and the data folder (which the desktop app can open).
import type { AppInfo } from '../../api/types';
import { ErrorMessage, Loading } from '../../components/StateMessage';
import { useAppInfo } from './useAppInfo';

function infoValue(info: AppInfo, key: keyof AppInfo): string {
  return info[key] ?? '—';
}

export function AppInfoPanel() {
  const { info, error, load } = useAppInfo();
  const bridge = window.shelfAudit;
  return (
    <section aria-labelledby="info-title">
      <h3 id="info-title">This installation</h3>
      {error && <ErrorMessage message={error} onRetry={load} />}
      {!info && !error && <Loading what="installation details" />}
      {info && (
        <dl className="info-list">
          <dt>App version</dt>
          <dd>{infoValue(info, 'app_version')}</dd>
          <dt>Detector model</dt>
          <dd>{infoValue(info, 'model_version')}</dd>
          <dt>Product embedder</dt>
          <dd>{infoValue(info, 'embedder_version')}</dd>
          <dt>Data folder</dt>
          <dd>
            <code>{infoValue(info, 'data_dir')}</code>
            {bridge?.revealDataFolder && (
              <button type="button" onClick={() => void bridge.revealDataFolder()}>
                Show folder
              </button>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}
