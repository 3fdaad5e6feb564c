export function greet(name: string): string {
  const greeting = "hello";
  return greeting + " " + name;
}

export function bye(): string {
  return "bye";
}
