<?php

function shout(string $name): string
{
    $loud = $name . "!";
    return $loud;
}
