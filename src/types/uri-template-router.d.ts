// Types for the parts of uri-template-router (which ships none) that Tessera uses.
declare module 'uri-template-router' {
  export interface Variable {
    varname: string;
  }
  export interface Route<V> {
    uriTemplate: string;
    matchValue: V;
    variables: Variable[];
  }
  export interface Result<V> {
    uriTemplate: string;
    matchValue: V;
    params: Record<string, string | string[]> | undefined;
  }
  export class Router<V = unknown> {
    addTemplate(uriTemplate: string, options: object, matchValue: V): Route<V>;
    resolveURI(uri: string): Result<V> | undefined;
    clear(): void;
  }
}
