/** A storage key as the files capability makes them (`<tenantId>/<fileId>`): no `..`, no absolute path, no backslash. */
export function checkedKey(key: string): string {
  if (!/^[\w.~-]+(\/[\w.~-]+)*$/.test(key) || key.split('/').some((part) => part === '.' || part === '..'))
    throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
  return key;
}
