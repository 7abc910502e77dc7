// Settings: the data folder and the models this installation runs, the photo checks' thresholds, sync with the central, and API
// keys for local integrations (the key is shown once, at creation).
import { ApiKeysPanel } from './ApiKeysPanel';
import { AppInfoPanel } from './AppInfoPanel';
import { PhotoQualityPanel } from './PhotoQualityPanel';
import { SyncPanel } from './SyncPanel';

export function SettingsScreen() {
  return (
    <section aria-labelledby="settings-title" className="settings">
      <h2 id="settings-title">Settings</h2>
      <AppInfoPanel />
      <PhotoQualityPanel />
      <SyncPanel />
      <ApiKeysPanel />
    </section>
  );
}
