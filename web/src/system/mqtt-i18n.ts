import i18n from '../i18n/index.ts';
import { en, zh } from './mqtt-strings.ts';

/** The MQTT screen's strings join the app's dictionaries when it loads (mqtt-strings.ts holds them, free of side effects). */
export { en, zh };

i18n.addResourceBundle('zh', 'translation', zh, true, false);
i18n.addResourceBundle('en', 'translation', en, true, false);
