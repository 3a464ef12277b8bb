/** A number as a spreadsheet reads one (`-40`, `+5`, `1.5e-3`): it evaluates nothing, so it is never escaped. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A cell of an export, safe to open in a spreadsheet (OWASP CSV injection, CWE-1236): text a spreadsheet would evaluate
 * as a formula (beginning with = + - @, or with a tab or carriage return that some skip before one) gets a leading
 * apostrophe so that it reads as text. A number, or a number's text, is left alone. A number followed by a unit
 * (`-40 C`) is text that Excel evaluates (`=-40 C`: an intersection, an error at best), so it is escaped: exports
 * carry the bare value in a column of its own.
 */
export const formulaSafe = <T>(value: T): T | string =>
  typeof value === 'string' && /^[=+\-@\t\r]/.test(value) && !NUMBER.test(value) ? `'${value}` : value;
