/**
 * Object literals with accessors (`get x() {}` / `set x(v) {}`) in src/. V8
 * creates such a literal on its slow path, in old space; every young object it
 * points to (a request, its closures) then survives the scavenges until a full
 * collection. One per HTTP request made GC a fifth of the server's time. A
 * class with the accessor on its prototype is allocated like any other object.
 */

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './import-graph.js';

/** `file:line accessor` for every accessor written inside an object literal in `text`. */
export function literalAccessorsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line} ${node.name.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every accessor in an object literal under `dir`, named relative to it. */
export function literalAccessors(dir: string): string[] {
  return sourceFiles(dir).flatMap((path) => literalAccessorsIn(relative(dir, path), readFileSync(path, 'utf8')));
}
