export interface Person {
  name: string;
  age: number;
}

export function greet(p: Person): string {
  return "Hello, " + p.name;
}

export function greetAll(people: Person[]): string[] {
  return people.map(greet);
}
