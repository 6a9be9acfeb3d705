/* PLACEHOLDER: the runner lands here. */
int main(void) { return 2; }
