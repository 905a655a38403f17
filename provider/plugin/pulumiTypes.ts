/**
 * From zod to Pulumi package-schema types, through zod's own JSON Schema (z.toJSONSchema): the
 * plugin's schema is derived from the schemas `check` validates with, never written twice.
 *
 * Pulumi's schema is a JSON Schema dialect with named object types: an object with properties
 * becomes a type of its own under `types` (named by where it appears), one without becomes a map
 * or Any. A string enum a user writes (an input) becomes an enum type of its own, named by its
 * schema's `title` (`MessagingRegion`), which the input takes beside any string; one the service reports (an output) stays a string, its
 * values listed in the description, so that a value the service adds later is still readable.
 */
import { z } from "zod";
import { InternalError } from "../userError";

/** A property or type reference of Pulumi's package schema. */
export interface TypeSpec {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
}
export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
}
export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}
/** A string enum type: its values, each with a name the SDKs make a constant of. */
export interface EnumTypeSpec {
  type: "string";
  enum: { value: string; name: string }[];
}

/** The subset of JSON Schema z.toJSONSchema writes for the shapes this package uses. */
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  description?: string;
  title?: string;
  secret?: boolean;
}

export const PACKAGE = "mgmt";
/** A resource's type through the plugin: `mgmt:index:<Name>`. */
export const token = (name: string) => `${PACKAGE}:index:${name}`;
/**
 * The same resource's type as a dynamic resource: the Node.js SDK names it after the module the
 * classes register (`mgmt`, e.g. resources/searchIndex/searchIndex.ts): `pulumi-nodejs:dynamic/mgmt:<Name>`.
 */
export const dynamicToken = (name: string) => `pulumi-nodejs:dynamic/${PACKAGE}:${name}`;
/** A property name as part of a type name: `query_throughput` → `QueryThroughput`. */
const pascal = (key: string) => key.replace(/(^|_)([a-z0-9])/g, (_, __: string, c: string) => c.toUpperCase());
const ANY: TypeSpec = { $ref: "pulumi.json#/Any" };

/** A zod schema as JSON Schema: what a caller writes (`input`) or what the provider returns (`output`). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  // Transforms (a pin's default period) and custom refinements have no JSON form: their input type is what matters here.
  return z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline" }) as JsonSchema;
}

/** An enum value's constant name in the SDKs: `eu-west-1` → `EuWest1`, `1h` → `Value1h`. */
const constantName = (value: string) => {
  const name = value.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __: string, c: string) => c.toUpperCase());
  return /^[A-Za-z]/.test(name) ? name : `Value${name}`;
};

/** Collects the named object and enum types a resource's properties need, under `types`. */
export class TypeCollector {
  readonly types: Record<string, ObjectTypeSpec | EnumTypeSpec> = {};
  /** True while collecting inputs: their string enums become enum types. */
  private enums = false;

  /**
   * A Pulumi object type (`properties`, `required`) from a JSON Schema object; nested objects
   * become named types `<name><Property>`. `io`: whether a user writes it (its enums become
   * enum types) or the service reports it.
   */
  objectType(name: string, schema: JsonSchema, io: "input" | "output" = "output"): ObjectTypeSpec {
    const outer = this.enums;
    this.enums = io === "input";
    try {
      return this.object(name, schema);
    } finally {
      this.enums = outer;
    }
  }

  private object(name: string, schema: JsonSchema): ObjectTypeSpec {
    const properties: Record<string, PropertySpec> = {};
    for (const [key, prop] of Object.entries(schema.properties ?? {}))
      properties[key] = this.property(`${name}${pascal(key)}`, prop);
    const spec: ObjectTypeSpec = { type: "object", properties };
    if (schema.description) spec.description = schema.description;
    if (schema.required?.length) spec.required = [...schema.required];
    return spec;
  }

  property(name: string, schema: JsonSchema): PropertySpec {
    const spec: PropertySpec = this.typeOf(name, schema);
    const description = [
      schema.description,
      // An enum type lists its values itself.
      schema.enum && !(this.enums && schema.type === "string")
        ? `One of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}.`
        : undefined,
    ]
      .filter(Boolean)
      .join(" ");
    if (description) spec.description = description;
    if (schema.secret) spec.secret = true;
    return spec;
  }

  private typeOf(name: string, schema: JsonSchema): TypeSpec {
    if (schema.anyOf) return this.union(name, schema.anyOf);
    if (Array.isArray(schema.type))
      return this.union(
        name,
        schema.type.map((type) => ({ type })),
      );
    switch (schema.type) {
      case "string":
        // A string or the enum: a value outside it then reaches `check`, which refuses it in the one
        // line every door gives (naming the field and the allowed values); typed as the enum
        // alone, the YAML host would refuse it first, in lines of its own.
        return this.enums && schema.enum
          ? { oneOf: [{ type: "string" }, this.enumType(schema.title ?? name, schema.enum)] }
          : { type: "string" };
      case "number":
      case "integer":
      case "boolean":
        return { type: schema.type };
      case "array":
        return { type: "array", items: schema.items ? this.typeOf(name, schema.items) : ANY };
      case "object":
        if (schema.properties && Object.keys(schema.properties).length > 0) {
          this.types[token(name)] = this.object(name, schema);
          return { $ref: `#/types/${token(name)}` };
        }
        if (typeof schema.additionalProperties === "object")
          return { type: "object", additionalProperties: this.typeOf(name, schema.additionalProperties) };
        return ANY;
      default:
        return ANY;
    }
  }

  /** The enum type `name`, made on its first use; the same name for other values is a mistake in the schemas. */
  private enumType(name: string, values: unknown[]): TypeSpec {
    const spec: EnumTypeSpec = {
      type: "string",
      enum: values.map((v) => ({ value: String(v), name: constantName(String(v)) })),
    };
    const known = this.types[token(name)];
    if (known && JSON.stringify(known) !== JSON.stringify(spec))
      throw new InternalError(`two enums are titled ${name}: give each its own title`);
    this.types[token(name)] = spec;
    return { $ref: `#/types/${token(name)}` };
  }

  private union(name: string, members: JsonSchema[]): TypeSpec {
    const types = members.map((m) => this.typeOf(name, m));
    return types.length === 1 ? types[0] : { oneOf: types };
  }
}
