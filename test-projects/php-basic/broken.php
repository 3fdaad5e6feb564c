<?php
// Planted error: the statement is missing its semicolon.
function greet(string $name): string
{
    $greeting = "hello " . $name
    return $greeting;
}
