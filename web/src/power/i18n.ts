import { addBundle } from '../i18n/add-bundle.ts';
import { en, zh } from './strings.ts';

// The power area's strings join the app's dictionaries when its tabs load.
addBundle(zh, en);
