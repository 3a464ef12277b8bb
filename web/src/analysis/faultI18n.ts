import { addBundle } from '../i18n/add-bundle.ts';
import { en, zh } from './faultStrings.ts';

// The statistics' strings join the app's dictionaries when one of their screens (or the home dashboard) loads.
addBundle(zh, en);
