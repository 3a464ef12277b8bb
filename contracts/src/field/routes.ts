import { z } from 'zod';
import { route } from '../http/route.ts';
import { fieldDefinition, fieldKeyQuery, fieldSiteDevice, fieldSiteNode, siteConfigBody, siteConfigRow, siteQuery } from './model.ts';
import { fieldPerm as p } from './permissions.ts';

const tag = 'fieldConfig';
const groupIdResult = z.object({ groupId: z.string() });
const keyResult = z.object({ key: z.string() });

/** Field configuration (issue 20): each site's on-site parameters and the tenant's custom field definitions. */
export const fieldRoutes = {
  'fieldConfig.sites': route({
    method: 'GET',
    path: '/api/power/fieldConfig/sites',
    permission: p.list,
    tag,
    summary: "The tenant's group tree for the site picker: which groups are sites and which have parameters saved",
    response: z.array(fieldSiteNode),
    reads: ['groups', 'fieldConfig'],
  }),
  'fieldConfig.site': route({
    method: 'GET',
    path: '/api/power/fieldConfig/site',
    permission: p.list,
    tag,
    summary: "A site's parameters (empty ones when never saved)",
    query: siteQuery,
    response: siteConfigRow,
    reads: ['groups', 'fieldConfig'],
    errors: ['NOT_FOUND', 'NOT_A_SITE'],
  }),
  'fieldConfig.devices': route({
    method: 'GET',
    path: '/api/power/fieldConfig/devices',
    permission: p.list,
    tag,
    summary: 'The devices of a site and of the groups below it (500 at most)',
    query: siteQuery,
    response: z.array(fieldSiteDevice),
    reads: ['groups', 'devices'],
    errors: ['NOT_FOUND', 'NOT_A_SITE'],
  }),
  'fieldConfig.save': route({
    method: 'PUT',
    path: '/api/power/fieldConfig/site',
    permission: p.edit,
    tag,
    summary: "Save a site's parameters, checked against the custom field definitions",
    body: siteConfigBody,
    response: groupIdResult,
    reads: ['fieldConfig'],
    errors: ['NOT_FOUND', 'NOT_A_SITE', 'FIELD_UNKNOWN', 'FIELD_TYPE', 'FIELD_REQUIRED'],
  }),
  'fieldConfig.fields': route({
    method: 'GET',
    path: '/api/power/fieldConfig/fields',
    permission: p.list,
    tag,
    summary: "The tenant's custom field definitions, in the order they were first defined",
    response: z.array(fieldDefinition),
    reads: ['fieldConfig'],
  }),
  'fieldConfig.define': route({
    method: 'PUT',
    path: '/api/power/fieldConfig/field',
    permission: p.field,
    tag,
    summary: 'Define a custom field, or change its labels, type or whether it is required',
    body: fieldDefinition,
    response: keyResult,
    reads: ['fieldConfig'],
    errors: ['FIELD_LIMIT'],
  }),
  'fieldConfig.removeField': route({
    method: 'DELETE',
    path: '/api/power/fieldConfig/field',
    permission: p.field,
    tag,
    summary: 'Remove a custom field definition (values saved under it are no longer shown)',
    query: fieldKeyQuery,
    response: keyResult,
    reads: ['fieldConfig'],
    errors: ['NOT_FOUND'],
  }),
};
export type FieldRoutes = typeof fieldRoutes;
