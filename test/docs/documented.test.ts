// Every public declaration, and every member of one, has a doc comment, in every entry of the
// package: what an editor's hover shows first (issue 26 found 86 without). Read with the
// TypeScript compiler from the entries' sources, as the declarations are built from them:
// `@internal` and private members are stripped from the built types, so they need none.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = `${ROOT}src/`;

/** Each entry of the exports map, as its source file (tsconfig's paths say which). */
function entries(): Record<string, string> {
  const { compilerOptions } = ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(`${ROOT}tsconfig.json`, 'utf8')).config as {
    compilerOptions: { paths: Record<string, [string]> };
  };
  const exportsMap = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { exports: Record<string, unknown> }).exports;
  const out: Record<string, string> = {};
  for (const key of Object.keys(exportsMap)) {
    if (key === './package.json') continue;
    const name = key === '.' ? 'omnimedia' : `omnimedia/${key.slice(2)}`;
    const path = compilerOptions.paths[name]?.[0];
    if (!path) throw new Error(`tsconfig.json has no path for ${name}`);
    out[name] = `${ROOT}${path.slice(2)}`;
  }
  return out;
}

const hasTag = (node: ts.Node, tag: string) => ts.getJSDocTags(node).some((t) => t.tagName.text === tag);
/** The declaration's own doc comment says something (api-extractor inherits nothing from an interface). */
const ownDoc = (d: ts.Node) =>
  ts.getJSDocCommentsAndTags(d).some((doc) => ts.isJSDoc(doc) && (ts.getTextOfJSDocComment(doc.comment) ?? '').trim() !== '');
/**
 * Documented where a reader looks: each overload's signature has its own comment (the body of
 * an overloaded function is not public); any other declaration has one.
 */
const hasDoc = (symbol: ts.Symbol) => {
  const declarations = (symbol.declarations ?? []).filter(ours);
  const overloads = declarations.filter((d) => ts.isFunctionLike(d) && !(d as ts.FunctionLikeDeclaration).body);
  if (overloads.length > 0 && declarations.some((d) => ts.isFunctionLike(d) && (d as ts.FunctionLikeDeclaration).body)) return overloads.every(ownDoc);
  return declarations.some(ownDoc);
};
const ours = (d: ts.Node) => d.getSourceFile().fileName.startsWith(SRC);
const nameOf = (d: ts.Declaration) => ts.getNameOfDeclaration(d);
const hidden = (d: ts.Declaration) => {
  const flags = ts.getCombinedModifierFlags(d);
  const name = nameOf(d);
  return (
    (flags & ts.ModifierFlags.Private) !== 0 ||
    (name !== undefined && ts.isPrivateIdentifier(name)) ||
    hasTag(d, 'internal') ||
    // A member whose parent is @internal is not in the built types either.
    (d.parent !== undefined && hasTag(d.parent, 'internal'))
  );
};

/** `Owner.member`, named after the declaration that holds it (a class, interface or type). */
function memberName(declaration: ts.Declaration, member: ts.Symbol | undefined, checker: ts.TypeChecker): string {
  let owner: ts.Node | undefined = declaration.parent;
  while (owner && !ts.isClassDeclaration(owner) && !ts.isInterfaceDeclaration(owner) && !ts.isTypeAliasDeclaration(owner)) owner = owner.parent;
  const ownerName = owner && (owner as ts.ClassDeclaration).name ? (owner as ts.ClassDeclaration).name?.getText() : '?';
  if (!member) return `${ownerName}[${declaration.getText().split(']')[0]?.slice(1)}]`;
  const memberText = member.name.startsWith('__@') ? (nameOf(declaration)?.getText() ?? checker.symbolToString(member)) : member.name;
  return `${ownerName}.${memberText}`;
}

/**
 * The undocumented public items of the given entries, each once however many entries export
 * it: `Name (src/file.ts)` or `Name.member (src/file.ts)`, the file that declares it.
 */
export function undocumented(files: Record<string, string>): string[] {
  const program = ts.createProgram(Object.values(files), {
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    paths: Object.fromEntries(Object.entries(entries()).map(([name, path]) => [name, [path]])),
  });
  const checker = program.getTypeChecker();
  const missing = new Set<string>();
  for (const file of Object.values(files)) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`no module for ${file}`);
    for (let symbol of checker.getExportsOfModule(module)) {
      const name = symbol.name;
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declarations = (symbol.declarations ?? []).filter(ours);
      if (declarations.length === 0) continue; // another package's (zod's `z`, for one)
      const where = (d: ts.Declaration) => ` (${d.getSourceFile().fileName.slice(ROOT.length)})`;
      if (!hasDoc(symbol)) missing.add(`${name === 'default' ? symbol.name : name}${where(declarations[0] as ts.Declaration)}`);
      // Members: of a class (instance and static), an interface, an object type alias.
      const types: ts.Type[] = [];
      if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) types.push(checker.getDeclaredTypeOfSymbol(symbol));
      if (symbol.flags & ts.SymbolFlags.Class) types.push(checker.getTypeOfSymbol(symbol));
      for (const type of types) {
        const parts = type.isUnion() ? type.types : [type];
        for (const part of parts) {
          for (const index of checker.getIndexInfosOfType(part)) {
            const declaration = index.declaration;
            if (declaration && ours(declaration) && !ownDoc(declaration)) missing.add(`${memberName(declaration, undefined, checker)}${where(declaration)}`);
          }
          for (const member of checker.getPropertiesOfType(part)) {
            const memberDeclarations = (member.declarations ?? []).filter(ours);
            if (memberDeclarations.length === 0 || memberDeclarations.some(hidden)) continue;
            if (member.name === 'prototype') continue;
            if (!hasDoc(member)) missing.add(`${memberName(memberDeclarations[0] as ts.Declaration, member, checker)}${where(memberDeclarations[0] as ts.Declaration)}`);
          }
        }
      }
    }
  }
  return [...missing].sort();
}

describe('the public API is documented', () => {
  // One program of every entry's sources (omnimedia/mcp brings the MCP SDK's types): ~20 s on a
  // loaded machine.
  it('every exported declaration and every member, in every entry', () => {
    expect(undocumented(entries())).toEqual([]);
  }, 90_000);
});
