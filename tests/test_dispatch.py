"""A method a base class calls on ``self`` runs as the object's own class has it: a subclass's override
(of an object built in the function, passed in, or read from a list, of a plain class or a dataclass),
the base's own where it is named (``Base.act(self, z)``), and a subclass defined after the code was
built: the code is built again (it gave the base's method's derivative with no error before).  Checked
against the derivatives written out, and forward against reverse."""

import pytest

import adcompiler
import dispatch_funcs as F

W, X = 0.8, 0.5


def test_an_override_of_an_object_built_in_the_function():
    value, grads = adcompiler.value_and_grad(F.built_inside, argnums=(0, 1))(W, X)
    assert value == pytest.approx((W * X) ** 3, rel=1e-14)
    assert grads == pytest.approx((3 * (W * X) ** 2 * X, 3 * (W * X) ** 2 * W), rel=1e-14)
    assert adcompiler.differentiate(F.built_inside).jvp((W, X), (1.0, 2.0))[1] == pytest.approx(
        grads[0] + 2.0 * grads[1], rel=1e-14
    )


def test_an_override_of_an_object_passed_in_and_the_base_method_named():
    assert adcompiler.grad(F.passed_in, argnums=1)(F.Cubed(W), X) == pytest.approx(3 * (W * X) ** 2 * W, rel=1e-14)
    assert adcompiler.grad(F.passed_in, argnums=1)(F.Doubled(W), X) == pytest.approx(2.0 * W, rel=1e-14)
    assert adcompiler.grad(F.passed_in, argnums=1)(F.Base(W), X) == pytest.approx(W, rel=1e-14)


def test_objects_of_three_classes_in_a_list():
    value, grad = adcompiler.value_and_grad(F.in_a_list, argnums=1)(W, X)
    assert value == pytest.approx(W * X + (W * X) ** 3 + 2 * W * X, rel=1e-14)
    assert grad == pytest.approx(W + 3 * (W * X) ** 2 * W + 2 * W, rel=1e-14)


def test_a_dataclass_template_method():
    value, grad = adcompiler.value_and_grad(F.total_cost)(1.3)
    assert (value, grad) == pytest.approx((8 * 1.3**2, 16 * 1.3), rel=1e-14)


def test_a_subclass_defined_after_the_code_was_built():
    assert adcompiler.grad(F.late, argnums=1)(F.Late(W), X) == pytest.approx(W, rel=1e-14)

    class Later(F.Base):
        def act(self, z):
            return z * z

    assert adcompiler.grad(F.late, argnums=1)(Later(W), X) == pytest.approx(2 * W * X * W, rel=1e-14)
    assert adcompiler.grad(F.late, argnums=1)(F.Late(W), X) == pytest.approx(W, rel=1e-14)


def test_the_anf_of_a_method_reading_an_attribute_shows_it_as_written():
    d = adcompiler.differentiate(F.built_inside)
    d.grad(W, X)
    assert "t1 = self.w" in d.source("anf")
