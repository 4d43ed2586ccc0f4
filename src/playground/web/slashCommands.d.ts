// Types of slashCommands.js for the node tests that import it (the page loads the .js as is).

export interface OptionDef {
  readonly name: string;
  readonly description?: string;
  readonly type: number;
  readonly required?: boolean;
  readonly autocomplete?: boolean;
  readonly min_value?: number;
  readonly max_value?: number;
  readonly min_length?: number;
  readonly max_length?: number;
  readonly choices?: readonly { readonly name: string; readonly value: string | number }[];
  readonly options?: readonly OptionDef[];
}

export interface CommandDef {
  readonly name: string;
  readonly description?: string;
  readonly options?: readonly OptionDef[];
}

export interface Leaf {
  readonly path: string;
  readonly description: string | undefined;
  readonly options: readonly OptionDef[];
}

export interface Refs {
  readonly users?: readonly { id: string; username: string; displayName: string }[];
  readonly channels?: readonly { id: string; name: string }[];
  readonly roles?: readonly { id: string; name: string }[];
}

export type ParsedLine =
  | { ok: true; leaf: Leaf; values: Record<string, string>; missing: string[] }
  | { ok: false; error: string; leaf?: Leaf };

export const OPTION_TYPES: Readonly<Record<string, number>>;
export function leafCommands(commands: readonly CommandDef[]): Leaf[];
export function rankCommands(typed: string, leaves: readonly Leaf[]): Leaf[];
export function commandOfLine(
  text: string,
  leaves: readonly Leaf[],
): { leaf: Leaf; tail: string } | undefined;
export function parseCommandLine(text: string, leaves: readonly Leaf[], refs?: Refs): ParsedLine;
export function problemWith(
  options: readonly OptionDef[],
  values: Record<string, string>,
): string | undefined;
