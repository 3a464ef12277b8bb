import { addBundle } from '../i18n/add-bundle.ts';
import { en, zh } from './mqtt-strings.ts';

/** The MQTT screen's strings join the app's dictionaries when it loads (mqtt-strings.ts holds them, free of side effects). */
export { en, zh };

addBundle(zh, en);
