// Every name an entry exports, values and types alike, as an editor's completion lists them.
import ts from 'typescript';

export function exportedNames(entry: string): string[] {
  const program = ts.createProgram([entry], {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`no module symbol for ${entry}`);
  return checker
    .getExportsOfModule(symbol)
    .map((s) => s.name)
    .sort();
}
