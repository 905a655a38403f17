/**
 * Each resource of the list has its permanent module (providers/<module>, the path users' state
 * requires), and that module's exports object is the provider its own declaration declares, plus
 * `configure`: loaded alone, without the list of every resource.
 */
import { RESOURCES } from "../../provider/resources/all";
import { configure } from "../../provider/runtime";

test.each(RESOURCES.map((r) => [r.module, r] as const))(
  "providers/%s is its declaration's provider",
  (module, declaration) => {
    const provider = require(`../../provider/providers/${module}`);
    const { check, diff, create, read, update, delete: remove } = declaration.operations;
    expect(provider).toEqual({ configure, check, diff, create, read, update, delete: remove });
    expect(provider.create).toBe(create);
  },
);
