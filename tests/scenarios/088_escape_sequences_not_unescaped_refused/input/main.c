printf("a	b");
return 0;
