// A marketplace timestamp as a Date: absent or unreadable is undefined, never an Invalid Date.
export function toDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
