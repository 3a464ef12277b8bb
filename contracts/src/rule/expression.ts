import { Environment, type ASTNode } from '@marcbachmann/cel-js';

/**
 * Rule-chain expressions are CEL (Common Expression Language): no loops, no side effects, no `eval`.
 * What CEL still allows that could take long (a comprehension inside a comprehension over a message's
 * list) is refused before the expression is ever stored, and every expression is bounded in size.
 */
export const EXPRESSION_MAX_LENGTH = 1000;
const limits = { maxAstNodes: 400, maxDepth: 24, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 };
/** The comprehension macros: each walks a list once; one inside another multiplies. */
const comprehensions = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const MAX_COMPREHENSIONS = 4;

const environment = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false, limits });

/** A compiled expression: evaluate it against a message's variables. */
export type CompiledExpression = (variables: Record<string, unknown>) => unknown;

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** Counts comprehensions and refuses one nested in another (its cost would be the product of two lists). */
function checkComprehensions(node: unknown, inside: boolean, count: { n: number }): void {
  if (Array.isArray(node)) {
    for (const child of node) checkComprehensions(child, inside, count);
    return;
  }
  if (!isNode(node)) return;
  const args = node.args as unknown;
  const macro = node.op === 'rcall' && Array.isArray(args) && typeof args[0] === 'string' && comprehensions.has(args[0]);
  if (macro) {
    if (inside) throw new ExpressionError('a comprehension (map, filter, all, exists) may not hold another');
    if (++count.n > MAX_COMPREHENSIONS) throw new ExpressionError(`at most ${MAX_COMPREHENSIONS} comprehensions in one expression`);
    const [, target, body] = args as [string, unknown, unknown];
    checkComprehensions(target, inside, count);
    checkComprehensions(body, true, count);
    return;
  }
  checkComprehensions(args, inside, count);
}

/** Parses and checks an expression; throws an ExpressionError saying what is wrong and where. */
export function compileExpression(source: string): CompiledExpression {
  if (source.length > EXPRESSION_MAX_LENGTH) throw new ExpressionError(`longer than ${EXPRESSION_MAX_LENGTH} characters`);
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = environment.parse(source);
  } catch (error) {
    throw new ExpressionError((error as Error).message.split('\n')[0] ?? 'invalid expression');
  }
  checkComprehensions(parsed.ast, false, { n: 0 });
  return (variables) => plain(parsed(variables));
}

/** Why an expression is refused, or null when it is valid. */
export function expressionFault(source: string): string | null {
  try {
    compileExpression(source);
    return null;
  } catch (error) {
    return error instanceof ExpressionError ? error.message : String(error);
  }
}

/** CEL's integers are bigints and its maps may be Maps: turned into what JSON carries. */
export function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
