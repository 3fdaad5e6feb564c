import { greetAll } from "./greet";

const people = [
  { name: "Ada", age: 36 },
  { name: "Alan", age: 41 },
];

console.log(greetAll(people).join("\n"));
