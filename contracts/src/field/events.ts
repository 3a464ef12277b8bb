import type { DomainEvent } from '../event.ts';
import type { FieldDefinition, SiteParameters } from './model.ts';

/** What happens to a site's field configuration: its parameters saved whole. */
export type FieldSiteEvent = DomainEvent<'FieldSiteConfigured', SiteParameters & { groupId: string }>;

/** What happens to a tenant's custom field definitions: one defined (or redefined), one removed. */
export type FieldDefinitionEvent = DomainEvent<'FieldDefined', FieldDefinition> | DomainEvent<'FieldDefinitionRemoved', { key: string }>;

export type FieldConfigEvent = FieldSiteEvent | FieldDefinitionEvent;
export type FieldConfigEventType = FieldConfigEvent['type'];
