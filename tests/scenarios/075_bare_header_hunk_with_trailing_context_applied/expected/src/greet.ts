export function greet(name: string): string {
  const greeting = "hi";
  return greeting + " " + name;
}

export function bye(): string {
  return "bye";
}
