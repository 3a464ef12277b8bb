import i18n from '../i18n/index.ts';
import { en, zh } from './strings.ts';

/** The designer's strings join the app's dictionaries when its screens load (strings.ts holds them, free of side effects). */
export { en, zh };

i18n.addResourceBundle('zh', 'translation', zh, true, false);
i18n.addResourceBundle('en', 'translation', en, true, false);
