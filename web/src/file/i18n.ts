import { addBundle } from '../i18n/add-bundle.ts';
import { en, zh } from './strings.ts';

/** The screen's strings join the app's dictionaries when it loads (strings.ts holds them, free of side effects). */
export { en, zh };

addBundle(zh, en);
