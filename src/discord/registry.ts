// Indexes command modules by command name and custom-id action; refuses duplicates at start-up.
import type { CommandDefinition, CommandModule, ComponentHandler, ModalHandler } from "./command.ts";

export interface CommandRegistry {
  readonly modules: readonly CommandModule[];
  /** Exactly what registration sends and /help lists. */
  readonly definitions: readonly CommandDefinition[];
  command(name: string): CommandModule | undefined;
  component(action: string): { module: CommandModule; handler: ComponentHandler } | undefined;
  modal(action: string): { module: CommandModule; handler: ModalHandler } | undefined;
}

export function createRegistry(modules: readonly CommandModule[]): CommandRegistry {
  const byName = new Map<string, CommandModule>();
  const components = new Map<string, { module: CommandModule; handler: ComponentHandler }>();
  const modals = new Map<string, { module: CommandModule; handler: ModalHandler }>();
  for (const module of modules) {
    if (byName.has(module.name)) throw new Error(`two command modules define /${module.name}`);
    byName.set(module.name, module);
    for (const [action, handler] of Object.entries(module.components)) {
      const other = components.get(action);
      if (other)
        throw new Error(`component action "${action}" is used by /${other.module.name} and /${module.name}`);
      components.set(action, { module, handler });
    }
    for (const [action, handler] of Object.entries(module.modals)) {
      const other = modals.get(action);
      if (other)
        throw new Error(`modal action "${action}" is used by /${other.module.name} and /${module.name}`);
      modals.set(action, { module, handler });
    }
  }
  return {
    modules,
    definitions: modules.map((m) => m.definition),
    command: (name) => byName.get(name),
    component: (action) => components.get(action),
    modal: (action) => modals.get(action),
  };
}
