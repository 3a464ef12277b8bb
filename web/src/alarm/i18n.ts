import { addBundle } from '../i18n/add-bundle.ts';
import { en, zh } from './strings.ts';

/** The area's strings join the app's dictionaries when one of its screens loads (strings.ts holds them, free of side effects). */
export { en, zh };

addBundle(zh, en);
