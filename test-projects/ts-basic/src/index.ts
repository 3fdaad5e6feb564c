import { add, greet } from "./util";

const total: number = add(1, 2);
const message: string = greet("world");

export { total, message };
