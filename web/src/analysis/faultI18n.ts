import i18n from '../i18n/index.ts';
import { en, zh } from './faultStrings.ts';

// The statistics' strings join the app's dictionaries when one of their screens (or the home dashboard) loads.
i18n.addResourceBundle('zh', 'translation', zh, true, false);
i18n.addResourceBundle('en', 'translation', en, true, false);
