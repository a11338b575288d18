/**
 * A form from a JSON Schema object of primitive properties — the shape of an
 * elicitation's `requestedSchema` (and of most tools' `inputSchema`): a text
 * or number field, a checkbox or a select per property, labelled by its
 * title and description; and the values read back, typed as the schema says.
 */

type PropertySchema = Record<string, unknown>;
export interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

/** The choices of an enum property: `enum` (with `enumNames`), or `oneOf` of `const`s with titles. */
function choicesOf(schema: PropertySchema): Array<{ value: string; label: string }> | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as string[]) : [];
    return (schema.enum as unknown[]).map((v, i) => ({ value: String(v), label: names[i] ?? String(v) }));
  }
  if (Array.isArray(schema.oneOf)) {
    return (schema.oneOf as PropertySchema[]).map((o) => ({ value: String(o.const), label: String(o.title ?? o.const) }));
  }
  return undefined;
}

function fieldFor(name: string, schema: PropertySchema, required: boolean): HTMLElement {
  const choices = choicesOf(schema);
  let input: HTMLInputElement | HTMLSelectElement;
  if (choices) {
    input = document.createElement('select');
    for (const choice of choices) input.append(new Option(choice.label, choice.value, false, choice.value === String(schema.default)));
  } else if (schema.type === 'boolean') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = schema.default === true;
  } else {
    input = document.createElement('input');
    if (schema.type === 'number' || schema.type === 'integer') {
      input.type = 'number';
      input.step = schema.type === 'integer' ? '1' : 'any';
      if (typeof schema.minimum === 'number') input.min = String(schema.minimum);
      if (typeof schema.maximum === 'number') input.max = String(schema.maximum);
    } else {
      input.type = schema.format === 'email' ? 'email' : schema.format === 'uri' ? 'url' : schema.format === 'date' ? 'date' : 'text';
      if (typeof schema.minLength === 'number') input.minLength = schema.minLength;
      if (typeof schema.maxLength === 'number') input.maxLength = schema.maxLength;
    }
    if (schema.default !== undefined) input.value = String(schema.default);
    input.required = required;
  }
  input.name = name;
  input.id = `field-${name}`;
  const label = document.createElement('label');
  label.htmlFor = input.id;
  label.textContent = `${String(schema.title ?? name)}${required ? ' *' : ''}`;
  const row = document.createElement('div');
  row.className = 'field';
  row.append(label, input);
  if (typeof schema.description === 'string') {
    const hint = document.createElement('small');
    hint.textContent = schema.description;
    row.append(hint);
  }
  return row;
}

/** Replaces the form's fields with one per property, then a submit button (and more buttons if given). */
export function renderForm(form: HTMLFormElement, schema: ObjectSchema, submitLabel: string, ...extra: HTMLButtonElement[]): void {
  const required = new Set(schema.required ?? []);
  const submit = document.createElement('button');
  submit.type = 'submit';
  submit.textContent = submitLabel;
  const buttons = document.createElement('div');
  buttons.className = 'buttons';
  buttons.append(submit, ...extra);
  form.replaceChildren(...Object.entries(schema.properties ?? {}).map(([name, property]) => fieldFor(name, property, required.has(name))), buttons);
}

/** The form's values as the schema types them; empty optional fields are left out. */
export function readForm(form: HTMLFormElement, schema: ObjectSchema): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const input = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    if (!input) continue;
    if (property.type === 'boolean') values[name] = (input as HTMLInputElement).checked;
    else if (input.value === '') continue;
    else if (property.type === 'number' || property.type === 'integer') values[name] = Number(input.value);
    else values[name] = input.value;
  }
  return values;
}
