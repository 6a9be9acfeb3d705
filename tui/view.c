/* view.c — opening and closing the views over the panes (see view.h). */
#include "view.h"

void view_open(app *a, const view_ops *v)
{
    a->over_under = v->covers && a->over != v ? a->over : NULL;
    a->over = v;
}

void view_close(app *a)
{
    a->over = a->over_under;
    a->over_under = NULL;
}

void view_close_all(app *a)
{
    a->over = a->over_under = NULL;
}
