import { dexieDraftRepository } from '../db/draftRepository';
import { createNewVisitStore } from './newVisit';

/** The app's new-visit store, on IndexedDB. */
export const newVisitStore = createNewVisitStore(dexieDraftRepository);
