// Counts the lines of every function in a source text with the TypeScript compiler's parser:
// declarations, arrow functions, function expressions, methods, accessors and constructors. A
// function's length is its own span, from the line of its first token to the line of its last,
// so a nested function counts both in itself and inside the function that holds it.
import ts from 'typescript';

export interface FunctionSpan {
  name: string;
  /** 1-based line of the function's first token. */
  line: number;
  /** Lines from the first to the last, both included. */
  length: number;
}

function propertyName(name: ts.PropertyName | ts.BindingName | undefined): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** The name a reader would look for: its own, or the variable, property or call that holds it. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = propertyName(node.name);
  if (own) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return propertyName(parent.name) ?? '(anonymous)';
  }
  if (ts.isPropertyDeclaration(parent)) return propertyName(parent.name) ?? '(anonymous)';
  if (ts.isExportAssignment(parent)) return 'default';
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression.getText();
    return `(callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee})`;
  }
  return '(anonymous)';
}

export function functionSpans(fileName: string, text: string): FunctionSpan[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      spans.push({ name: nameOf(fn), line: first + 1, length: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

/** The functions longer than `limit` lines, longest first. */
export function longFunctions(fileName: string, text: string, limit: number): FunctionSpan[] {
  return functionSpans(fileName, text)
    .filter((span) => span.length > limit)
    .sort((a, b) => b.length - a.length);
}
