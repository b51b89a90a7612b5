/**
 * The item an UpdateItem leaves, worked out in memory from the item as read: the stores that
 * record a webhook event give it the record exactly as the change's own update expression leaves
 * it (event-records.ts), so the event's body and the write can never disagree.
 *
 * It knows the part of the expression language our updates use, on top-level attributes:
 * `SET a = v`, `v` an operand or `operand + operand` / `operand - operand`, an operand being a
 * value (`:v`), an attribute (`a`, `#a`), `if_not_exists(a, operand)` or
 * `list_append(operand, operand)`; `REMOVE a`; `ADD a :v` (numbers and sets). Anything else
 * (nested paths, DELETE) throws, so a store cannot record an event from an update it misreads.
 */

type Item = Record<string, unknown>;

export interface UpdateInput {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

const TOKEN = /\s*(#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*|[(),=+-]|\S)/y;

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    const match = TOKEN.exec(expression);
    if (!match?.[1]) break;
    tokens.push(match[1]);
  }
  return tokens;
}

const CLAUSES = new Set(['SET', 'REMOVE', 'ADD', 'DELETE']);

class UpdateReader {
  private position = 0;

  constructor(
    private readonly tokens: string[],
    private readonly update: UpdateInput,
    private readonly before: Item,
  ) {}

  /** The item after every clause; values are read from the item as it was (DynamoDB's rule). */
  apply(): Item {
    const after = { ...this.before };
    while (this.position < this.tokens.length) {
      const clause = this.next().toUpperCase();
      if (!CLAUSES.has(clause)) this.fail(`expected SET, REMOVE or ADD, found "${clause}"`);
      do {
        if (clause === 'SET') {
          const name = this.path();
          this.expect('=');
          after[name] = this.value();
        } else if (clause === 'REMOVE') {
          delete after[this.path()];
        } else if (clause === 'ADD') {
          const name = this.path();
          after[name] = added(this.before[name], this.operand());
        } else {
          this.fail('DELETE is not supported');
        }
      } while (this.accept(','));
    }
    return after;
  }

  private value(): unknown {
    const left = this.operand();
    if (this.accept('+')) return arithmetic(left, this.operand(), 1);
    if (this.accept('-')) return arithmetic(left, this.operand(), -1);
    return left;
  }

  private operand(): unknown {
    const token = this.peek();
    if (token?.startsWith(':')) {
      this.position++;
      if (!(token in (this.update.ExpressionAttributeValues ?? {}))) this.fail(`no value ${token}`);
      return this.update.ExpressionAttributeValues?.[token];
    }
    if (token === 'if_not_exists' || token === 'list_append') {
      this.position++;
      this.expect('(');
      if (token === 'if_not_exists') {
        const name = this.path();
        this.expect(',');
        const fallback = this.operand();
        this.expect(')');
        return this.before[name] ?? fallback;
      }
      const first = this.operand();
      this.expect(',');
      const second = this.operand();
      this.expect(')');
      if (!Array.isArray(first) || !Array.isArray(second)) this.fail('list_append of a non-list');
      return [...first, ...second];
    }
    return this.before[this.path()];
  }

  /** A top-level attribute name (`#alias` resolved). */
  private path(): string {
    const token = this.next();
    let name = token;
    if (token.startsWith('#')) {
      const resolved = this.update.ExpressionAttributeNames?.[token];
      if (resolved === undefined) this.fail(`no name ${token}`);
      name = resolved;
    } else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(token) || CLAUSES.has(token.toUpperCase())) {
      this.fail(`expected an attribute, found "${token}"`);
    }
    if (this.peek() === '.' || this.peek() === '[') this.fail('nested paths are not supported');
    return name;
  }

  private peek(): string | undefined {
    return this.tokens[this.position];
  }

  private next(): string {
    const token = this.tokens[this.position++];
    if (token === undefined) this.fail('unexpected end');
    return token;
  }

  private accept(token: string): boolean {
    if (this.peek() !== token) return false;
    this.position++;
    return true;
  }

  private expect(token: string): void {
    if (!this.accept(token)) this.fail(`expected "${token}", found "${this.peek() ?? 'the end'}"`);
  }

  private fail(reason: string): never {
    throw new Error(`Cannot apply the update in memory (${reason}): ${this.update.UpdateExpression}`);
  }
}

function arithmetic(left: unknown, right: unknown, sign: 1 | -1): number {
  if (typeof left !== 'number' || typeof right !== 'number') {
    throw new Error('Cannot apply the update in memory: arithmetic on a non-number');
  }
  return left + sign * right;
}

function added(current: unknown, value: unknown): unknown {
  if (typeof value === 'number') return (typeof current === 'number' ? current : 0) + value;
  if (value instanceof Set) return new Set([...(current instanceof Set ? current : []), ...value]);
  throw new Error('Cannot apply the update in memory: ADD of a value that is neither a number nor a set');
}

/** `item` as `update` leaves it (a new object; `item` is not changed). */
export function applyUpdate(item: Item, update: UpdateInput): Item {
  if (!update.UpdateExpression) return { ...item };
  return new UpdateReader(tokenize(update.UpdateExpression), update, item).apply();
}
