// Every screen, gathered into one script chunk (navigation/screens.tsx loads it): one request after
// the first script rather than one per module a screen uses, and moving between screens loads nothing.
export { NamedRecordScreen } from '../screens/catalog/NamedRecordScreen';
export { SkuListScreen } from '../screens/catalog/SkuListScreen';
export { SkuScreen } from '../screens/catalog/SkuScreen';
export { DisplaysScreen } from '../screens/displays/DisplaysScreen';
export { MhlScreen } from '../screens/displays/MhlScreen';
export { PlanogramScreen } from '../screens/displays/PlanogramScreen';
export { SettingsScreen } from '../screens/settings/SettingsScreen';
export { PricesScreen } from '../screens/prices/PricesScreen';
export { NewVisitScreen } from '../screens/visits/NewVisitScreen';
export { VisitScreen } from '../screens/visits/VisitScreen';
export { VisitsScreen } from '../screens/visits/VisitsScreen';
export { OverviewScreen } from '../screens/overview/OverviewScreen';
export { ReviewQueueScreen } from '../screens/overview/ReviewQueueScreen';
