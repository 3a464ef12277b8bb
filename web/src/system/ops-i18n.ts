import { addBundle } from '../i18n/add-bundle.ts';
import { en, zh } from './ops-strings.ts';

/** The screens' strings join the app's dictionaries when one of them loads (ops-strings.ts holds them, free of side effects). */
export { en, zh };

addBundle(zh, en);
